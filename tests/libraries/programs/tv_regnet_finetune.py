# known-miss: regnet's stage widths are tensor values (`torch.arange(depth) * w_a + w_0`, `torch.diff(...)`, `.tolist()`), which the checker does not compute
import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision.models import regnet_y_400mf

model = regnet_y_400mf(weights=None)
model.fc = nn.Linear(model.fc.in_features, 2)
x = torch.randn(2, 3, 224, 224)
reveal_shape(model.stem(x))  # [2 32 112 112]
reveal_shape(model(x))  # [2 2]
