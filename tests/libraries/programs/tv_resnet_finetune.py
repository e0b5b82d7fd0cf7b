import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision.models import resnet18

model = resnet18(weights=None)
model.fc = nn.Linear(model.fc.in_features, 10)
model.eval()
images = torch.randn(4, 3, 224, 224)
with torch.no_grad():
    logits = model(images)
reveal_shape(logits)  # [4 10]
