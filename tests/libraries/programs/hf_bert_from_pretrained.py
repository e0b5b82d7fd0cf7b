import tempfile

import torch
from tensorshape import reveal_shape
from transformers import BertConfig, BertModel

config = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
with tempfile.TemporaryDirectory() as folder:
    BertModel(config).save_pretrained(folder)
    model = BertModel.from_pretrained(folder)
ids = torch.randint(0, 100, (2, 16))
hidden = model(ids).last_hidden_state
reveal_shape(hidden)  # [2 16 64]
