# known-miss: timm's create_model goes through parse_model_name (a regex), pretrained-config resolution and build_model_with_cfg, whose resolve_pretrained_cfg and _update_default_model_kwargs leave the model's keyword arguments unknown: the model is unknown (built directly, the same ViT is checked: timm_vit_direct_bad_size)
import timm
import torch

model = timm.create_model("vit_small_patch16_224", num_classes=5)
images = torch.randn(2, 3, 128, 128)
logits = model(images)  # E: TS101
