import torch
from tensorshape import reveal_shape
from transformers import BertConfig, BertModel

config = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
model = BertModel(config)
ids = torch.randint(0, 100, (2, 16))
out = model(ids).last_hidden_state
reveal_shape(out)  # [2 16 64]
