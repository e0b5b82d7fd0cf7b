# known-miss: create_model now builds the model, but _create_vision_transformer builds NaFlexVit instead when os.environ's TIMM_USE_NAFLEXVIT is 'true' (not known statically), and NaFlexVit accepts a 128x128 image (torch raises nothing then): the model is a choice of VisionTransformer (which raises here) and NaFlexVit, and an error is reported only when every option raises (built directly, the same ViT is checked: timm_vit_direct_bad_size)
import timm
import torch

model = timm.create_model("vit_small_patch16_224", num_classes=5)
images = torch.randn(2, 3, 128, 128)
logits = model(images)  # E: TS101
