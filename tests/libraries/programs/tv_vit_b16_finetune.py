import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision.models import vit_b_16

model = vit_b_16(weights=None)
model.heads.head = nn.Linear(model.heads.head.in_features, 3)
images = torch.randn(2, 3, 224, 224)
logits = model(images)
reveal_shape(logits)  # [2 3]
