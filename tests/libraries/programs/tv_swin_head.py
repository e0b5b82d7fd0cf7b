import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision.models import swin_t

model = swin_t(weights=None)
model.head = nn.Linear(model.head.in_features, 6)
x = torch.randn(2, 3, 224, 224)
y = model(x)
reveal_shape(y)  # [2 6]
