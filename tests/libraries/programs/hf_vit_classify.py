import torch
from tensorshape import reveal_shape
from transformers import ViTConfig, ViTForImageClassification

config = ViTConfig(
    image_size=64,
    patch_size=16,
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=128,
    num_labels=5,
)
model = ViTForImageClassification(config)
pixel_values = torch.randn(2, 3, 64, 64)
outputs = model(pixel_values=pixel_values, output_hidden_states=True)
reveal_shape(outputs.logits)  # [2 5]
reveal_shape(outputs.hidden_states[-1])  # [2 17 64]
