import torch
import torch.nn.functional as F
from tensorshape import reveal_shape
from transformers import RobertaConfig, RobertaForSequenceClassification

config = RobertaConfig(
    vocab_size=120,
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=128,
    max_position_embeddings=40,
    num_labels=4,
)
model = RobertaForSequenceClassification(config)

batch = torch.randint(3, 120, (3, 20))
logits = model(batch).logits
reveal_shape(logits)  # [3 4]
probs = F.softmax(logits, dim=-1)
reveal_shape(probs)  # [3 4]
