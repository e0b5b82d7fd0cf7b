import torch
from tensorshape import reveal_shape
from timm.models.vision_transformer import VisionTransformer

model = VisionTransformer(img_size=64, patch_size=16, embed_dim=96, depth=2, num_heads=3, num_classes=5)
reveal_shape(model(torch.randn(2, 3, 64, 64)))  # [2 5]
out = model(torch.randn(2, 3, 96, 96))  # E: TS101
