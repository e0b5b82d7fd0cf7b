import torch
import torch.nn as nn
from tensorshape import reveal_shape
from transformers import AutoModel, BertConfig


class TextClassifier(nn.Module):
    def __init__(self, config, num_classes):
        super().__init__()
        self.encoder = AutoModel.from_config(config)
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(config.hidden_size, num_classes)

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        cls = hidden[:, 0]
        return self.head(self.dropout(cls))


config = BertConfig(vocab_size=200, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
model = TextClassifier(config, num_classes=6)
ids = torch.randint(0, 200, (8, 24))
mask = torch.ones(8, 24, dtype=torch.long)
logits = model(ids, mask)
reveal_shape(logits)  # [8 6]
