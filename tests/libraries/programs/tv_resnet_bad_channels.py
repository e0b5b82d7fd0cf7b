import torch
from torchvision.models.resnet import BasicBlock, ResNet

model = ResNet(BasicBlock, [2, 2, 2, 2])
gray = torch.randn(2, 1, 224, 224)
out = model(gray)  # E: TS101
