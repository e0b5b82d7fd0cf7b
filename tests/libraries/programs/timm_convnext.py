import timm
import torch
from tensorshape import reveal_shape

model = timm.create_model("convnext_tiny", num_classes=5)
model.eval()
images = torch.randn(2, 3, 64, 64)
with torch.no_grad():
    logits = model(images)
reveal_shape(logits)  # [2 5]
