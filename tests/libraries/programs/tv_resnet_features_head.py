import torch
import torch.nn as nn
from tensorshape import reveal_shape
from torchvision.models import resnet34


class Classifier(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        backbone = resnet34(weights=None)
        self.features = nn.Sequential(*list(backbone.children())[:-1])
        self.head = nn.Linear(backbone.fc.in_features, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.head(x)


model = Classifier(3)
out = model(torch.randn(4, 3, 128, 128))
reveal_shape(out)  # [4 3]
