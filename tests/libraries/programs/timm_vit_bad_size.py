# known-miss: timm's create_model goes through parse_model_name (a regex), pretrained-config resolution and build_model_with_cfg, and PatchEmbed.proj is reassigned by set_input_size: the model is unknown
import timm
import torch

model = timm.create_model("vit_small_patch16_224", num_classes=5)
images = torch.randn(2, 3, 128, 128)
logits = model(images)  # E: TS101
