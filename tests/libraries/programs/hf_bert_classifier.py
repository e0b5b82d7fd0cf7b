import torch
import torch.nn as nn
from tensorshape import reveal_shape
from transformers import BertConfig, BertModel

config = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
encoder = BertModel(config)
head = nn.Linear(config.hidden_size, 3)
ids = torch.randint(0, 100, (2, 16))
hidden = encoder(ids).last_hidden_state
reveal_shape(hidden)  # [2 16 64]
logits = head(hidden[:, 0])
reveal_shape(logits)  # [2 3]
