import timm
import torch
from tensorshape import reveal_shape

model = timm.create_model("resnet18")
model.reset_classifier(7)
x = torch.randn(2, 3, 128, 128)
feats = model.forward_features(x)
reveal_shape(feats)  # [2 512 4 4]
out = model(x)
reveal_shape(out)  # [2 7]
