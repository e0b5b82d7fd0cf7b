import timm
import torch

model = timm.create_model("vit_small_patch16_224", num_classes=5)
images = torch.randn(2, 3, 128, 128)
logits = model(images)  # E: TS101
