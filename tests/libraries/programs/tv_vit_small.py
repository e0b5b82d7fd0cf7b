import torch
from tensorshape import reveal_shape
from torchvision.models.vision_transformer import VisionTransformer

model = VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=4, hidden_dim=64, mlp_dim=128, num_classes=5)
x = torch.randn(2, 3, 64, 64)
y = model(x)
reveal_shape(y)  # [2 5]
