import torch
from tensorshape import reveal_shape
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(vocab_size=100, n_positions=32, n_embd=64, n_layer=2, n_head=4)
model = GPT2LMHeadModel(config)
model.eval()

input_ids = torch.randint(0, config.vocab_size, (2, 16))
with torch.no_grad():
    outputs = model(input_ids=input_ids)
logits = outputs.logits
reveal_shape(logits)  # [2 16 100]
next_token = logits[:, -1, :].argmax(dim=-1)
reveal_shape(next_token)  # [2]
