import torch
from transformers import ViTConfig, ViTForImageClassification

config = ViTConfig(image_size=64, patch_size=16, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, num_labels=5)
model = ViTForImageClassification(config)
images = torch.randn(2, 3, 96, 96)
logits = model(images).logits  # E: TS101
