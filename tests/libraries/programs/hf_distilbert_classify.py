import torch
from tensorshape import reveal_shape
from transformers import DistilBertConfig, DistilBertForSequenceClassification

config = DistilBertConfig(vocab_size=100, dim=64, n_layers=2, n_heads=4, hidden_dim=128, num_labels=3)
model = DistilBertForSequenceClassification(config)

input_ids = torch.randint(0, 100, (4, 12))
attention_mask = torch.ones_like(input_ids)
labels = torch.tensor([0, 2, 1, 1])
out = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
reveal_shape(out.logits)  # [4 3]
out.loss.backward()
