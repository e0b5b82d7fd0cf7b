# known-miss: BertConfig's hook and decorators are followed now (dataclass kw_only, the accept-kwargs __init__, @strict), but PreTrainedConfig.__post_init__ cannot decide hasattr(self, "rope_parameters") and the rope branch is cut short by the depth bound, so its setattr(self, key, value) over the leftover kwargs may set any field: config.hidden_size is unknown (never 768) and the 64-wide output is not known
import torch
import torch.nn as nn
from transformers import BertConfig, BertModel

config = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
encoder = BertModel(config)
head = nn.Linear(768, 3)
ids = torch.randint(0, 100, (2, 16))
pooled = encoder(ids).pooler_output
logits = head(pooled)  # E: TS101
