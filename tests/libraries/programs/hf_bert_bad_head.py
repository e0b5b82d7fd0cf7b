import torch
import torch.nn as nn
from transformers import BertConfig, BertModel

config = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
encoder = BertModel(config)
head = nn.Linear(768, 3)
ids = torch.randint(0, 100, (2, 16))
pooled = encoder(ids).pooler_output
logits = head(pooled)  # E: TS101
