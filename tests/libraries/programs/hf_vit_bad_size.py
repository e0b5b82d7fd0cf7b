# known-miss: transformers' ViTPatchEmbeddings raises a ValueError of its own for an image size other than the config's, and the encoder's output is unknown (the attention is dispatched through ALL_ATTENTION_FUNCTIONS with config._attn_implementation, which PreTrainedModel.__init__ sets)
import torch
from transformers import ViTConfig, ViTForImageClassification

config = ViTConfig(image_size=64, patch_size=16, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, num_labels=5)
model = ViTForImageClassification(config)
images = torch.randn(2, 3, 96, 96)
logits = model(images).logits  # E: TS101
