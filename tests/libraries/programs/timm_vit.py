import timm
import torch
from tensorshape import reveal_shape

model = timm.create_model("vit_small_patch16_224", num_classes=5)
x = torch.randn(2, 3, 224, 224)
y = model(x)
reveal_shape(y)  # [2 5]
