import timm
import torch
from tensorshape import reveal_shape

model = timm.create_model("resnet18", num_classes=4)
x = torch.randn(2, 3, 96, 96)
out = model(x)
reveal_shape(out)  # [2 4]
