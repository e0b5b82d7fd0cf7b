import torch
from tensorshape import reveal_shape
from torchvision.models.resnet import BasicBlock, ResNet

model = ResNet(BasicBlock, [2, 2, 2, 2], num_classes=5)
x = torch.randn(2, 3, 224, 224)
stem = model.conv1(x)
reveal_shape(stem)  # [2 64 112 112]
out = model(x)
reveal_shape(out)  # [2 5]
