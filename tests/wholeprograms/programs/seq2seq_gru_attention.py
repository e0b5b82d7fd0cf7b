"""A sequence-to-sequence translator in the style of the classic PyTorch seq2seq tutorials: a
bidirectional GRU encoder over packed, padded source sentences, a GRU decoder with additive
attention over the encoder outputs, and teacher forcing during training.  The "language" is
made up: the target is the source reversed between start and end tokens."""

import argparse
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader, Dataset

PAD, SOS, EOS = 0, 1, 2


class ReversalPairs(Dataset):
    def __init__(self, n, vocab_size, min_len=3, max_len=9, seed=0):
        rng = random.Random(seed)
        self.pairs = []
        for _ in range(n):
            src = [rng.randrange(3, vocab_size) for _ in range(rng.randint(min_len, max_len))]
            tgt = [SOS] + src[::-1] + [EOS]
            self.pairs.append((torch.tensor(src), torch.tensor(tgt)))

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        return self.pairs[idx]


def collate(batch):
    batch = sorted(batch, key=lambda pair: len(pair[0]), reverse=True)
    srcs, tgts = zip(*batch)
    src_lens = torch.tensor([len(s) for s in srcs])
    src = pad_sequence(srcs, batch_first=True, padding_value=PAD)
    tgt = pad_sequence(tgts, batch_first=True, padding_value=PAD)
    return src, src_lens, tgt


class Encoder(nn.Module):
    def __init__(self, vocab_size, emb_dim, hid_dim, dropout=0.1):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=PAD)
        self.rnn = nn.GRU(emb_dim, hid_dim, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(hid_dim * 2, hid_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src, src_lens):
        embedded = self.dropout(self.embedding(src))
        packed = pack_padded_sequence(embedded, src_lens, batch_first=True)
        packed_outputs, hidden = self.rnn(packed)
        outputs, _ = pad_packed_sequence(packed_outputs, batch_first=True)
        hidden = torch.tanh(self.fc(torch.cat((hidden[-2], hidden[-1]), dim=1)))
        return outputs, hidden


class Attention(nn.Module):
    def __init__(self, hid_dim):
        super().__init__()
        self.attn = nn.Linear(hid_dim * 3, hid_dim)
        self.v = nn.Linear(hid_dim, 1, bias=False)

    def forward(self, hidden, encoder_outputs, mask):
        src_len = encoder_outputs.size(1)
        hidden = hidden.unsqueeze(1).repeat(1, src_len, 1)
        energy = torch.tanh(self.attn(torch.cat((hidden, encoder_outputs), dim=2)))
        scores = self.v(energy).squeeze(2)
        scores = scores.masked_fill(mask == 0, -1e10)
        return F.softmax(scores, dim=1)


class Decoder(nn.Module):
    def __init__(self, vocab_size, emb_dim, hid_dim, dropout=0.1):
        super().__init__()
        self.output_dim = vocab_size
        self.attention = Attention(hid_dim)
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=PAD)
        self.rnn = nn.GRU(emb_dim + hid_dim * 2, hid_dim, batch_first=True)
        self.fc_out = nn.Linear(hid_dim * 3 + emb_dim, vocab_size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, token, hidden, encoder_outputs, mask):
        embedded = self.dropout(self.embedding(token.unsqueeze(1)))
        weights = self.attention(hidden, encoder_outputs, mask).unsqueeze(1)
        context = torch.bmm(weights, encoder_outputs)
        output, hidden = self.rnn(torch.cat((embedded, context), dim=2), hidden.unsqueeze(0))
        prediction = self.fc_out(torch.cat((output.squeeze(1), context.squeeze(1), embedded.squeeze(1)), dim=1))
        return prediction, hidden.squeeze(0)


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, src_lens, tgt, teacher_forcing_ratio=0.5):
        batch_size, tgt_len = tgt.shape
        outputs = torch.zeros(batch_size, tgt_len, self.decoder.output_dim)
        encoder_outputs, hidden = self.encoder(src, src_lens)
        mask = src[:, : encoder_outputs.size(1)] != PAD
        token = tgt[:, 0]
        for t in range(1, tgt_len):
            prediction, hidden = self.decoder(token, hidden, encoder_outputs, mask)
            outputs[:, t] = prediction
            teacher_force = random.random() < teacher_forcing_ratio
            token = tgt[:, t] if teacher_force else prediction.argmax(1)
        return outputs


def train_epoch(model, loader, optimizer, criterion, clip):
    model.train()
    total = 0.0
    for src, src_lens, tgt in loader:
        optimizer.zero_grad()
        output = model(src, src_lens, tgt)
        output_dim = output.shape[-1]
        loss = criterion(output[:, 1:].reshape(-1, output_dim), tgt[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def main():
    parser = argparse.ArgumentParser(description="GRU seq2seq with attention")
    parser.add_argument("--vocab-size", type=int, default=20)
    parser.add_argument("--emb-dim", type=int, default=16)
    parser.add_argument("--hid-dim", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--clip", type=float, default=1.0)
    args = parser.parse_args()

    random.seed(0)
    torch.manual_seed(0)
    dataset = ReversalPairs(40, args.vocab_size)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, collate_fn=collate)
    encoder = Encoder(args.vocab_size, args.emb_dim, args.hid_dim)
    decoder = Decoder(args.vocab_size, args.emb_dim, args.hid_dim)
    model = Seq2Seq(encoder, decoder)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss(ignore_index=PAD)
    for epoch in range(args.epochs):
        loss = train_epoch(model, loader, optimizer, criterion, args.clip)
        print(f"epoch {epoch}: loss {loss:.3f}")


if __name__ == "__main__":
    main()
