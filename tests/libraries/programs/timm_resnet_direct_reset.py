import torch
from tensorshape import reveal_shape
from timm.models.resnet import BasicBlock, ResNet

model = ResNet(BasicBlock, [2, 2, 2, 2], num_classes=10)
x = torch.randn(2, 3, 96, 96)
reveal_shape(model(x))  # [2 10]
model.reset_classifier(3)
feats = model.forward_features(x)
reveal_shape(feats)  # [2 512 3 3]
reveal_shape(model.forward_head(feats))  # [2 3]
reveal_shape(model(x))  # [2 3]
