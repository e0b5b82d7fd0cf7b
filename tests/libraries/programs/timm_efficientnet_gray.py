import timm
import torch
from tensorshape import reveal_shape

model = timm.create_model("efficientnet_b0", in_chans=1, num_classes=10)
scans = torch.randn(4, 1, 96, 96)
features = model.forward_features(scans)
reveal_shape(features)  # [4 1280 3 3]
logits = model.forward_head(features)
reveal_shape(logits)  # [4 10]
