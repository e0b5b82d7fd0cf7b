# known-miss: AutoModel.from_config now finds and builds the BertModel, but `config.sub_configs` (a classproperty over a class-level dict that 316 files of transformers mention) is a dict of keys not known, so its text-config branch (`config.get_text_config()`) is joined in and the encoder output is unknown
import torch
import torch.nn as nn
from transformers import AutoModel, BertConfig

config = BertConfig(vocab_size=200, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
encoder = AutoModel.from_config(config)
classifier = nn.Sequential(nn.Linear(128, 32), nn.ReLU(), nn.Linear(32, 2))
ids = torch.randint(0, 200, (4, 10))
features = encoder(ids).last_hidden_state.mean(dim=1)
scores = classifier(features)  # E: TS101
