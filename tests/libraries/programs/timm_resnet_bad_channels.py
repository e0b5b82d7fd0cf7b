import timm
import torch

model = timm.create_model("resnet18", in_chans=1, num_classes=2)
rgb = torch.randn(8, 3, 64, 64)
scores = model(rgb)  # E: TS101
