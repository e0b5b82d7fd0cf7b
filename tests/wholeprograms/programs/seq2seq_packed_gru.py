"""A GRU encoder-decoder for a toy translation task, as the seq2seq tutorials write it: a Dataset of
(source ids, target ids) pairs of varying lengths, a collate_fn that pads both with pad_sequence and
returns the source lengths, an encoder that packs the padded batch with pack_padded_sequence (unsorted
lengths) and unpacks its bidirectional outputs, a bridge from the two final directions to the
decoder's initial state, a decoder run one step at a time with teacher forcing, and a loss that
ignores the padding.  Options come from argparse; random token sequences stand in for the corpus
(each target is its source reversed, with start and end tokens)."""

import argparse
import random

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader, Dataset

PAD_IDX, SOS_IDX, EOS_IDX = 0, 1, 2


class ReversalPairs(Dataset):
    def __init__(self, n_pairs, vocab_size, min_len=3, max_len=12, seed=0):
        rng = random.Random(seed)
        self.pairs = []
        for _ in range(n_pairs):
            length = rng.randint(min_len, max_len)
            src = [rng.randrange(3, vocab_size) for _ in range(length)]
            tgt = [SOS_IDX] + src[::-1] + [EOS_IDX]
            self.pairs.append((torch.tensor(src), torch.tensor(tgt)))

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        return self.pairs[idx]


def collate_batch(batch):
    src_batch, tgt_batch = [], []
    for src, tgt in batch:
        src_batch.append(src)
        tgt_batch.append(tgt)
    src_lengths = torch.tensor([len(s) for s in src_batch])
    src_batch = pad_sequence(src_batch, batch_first=True, padding_value=PAD_IDX)
    tgt_batch = pad_sequence(tgt_batch, batch_first=True, padding_value=PAD_IDX)
    return src_batch, src_lengths, tgt_batch


class Encoder(nn.Module):
    def __init__(self, input_dim, emb_dim, enc_hid_dim, dec_hid_dim, dropout):
        super().__init__()
        self.embedding = nn.Embedding(input_dim, emb_dim, padding_idx=PAD_IDX)
        self.rnn = nn.GRU(emb_dim, enc_hid_dim, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(enc_hid_dim * 2, dec_hid_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src, src_len):
        embedded = self.dropout(self.embedding(src))
        packed_embedded = pack_padded_sequence(embedded, src_len.cpu(), batch_first=True, enforce_sorted=False)
        packed_outputs, hidden = self.rnn(packed_embedded)
        outputs, _ = pad_packed_sequence(packed_outputs, batch_first=True)
        # hidden is [n layers * n directions, batch, enc hid dim]: the last forward and backward states
        hidden = torch.tanh(self.fc(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1)))
        return outputs, hidden


class Decoder(nn.Module):
    def __init__(self, output_dim, emb_dim, dec_hid_dim, dropout):
        super().__init__()
        self.output_dim = output_dim
        self.embedding = nn.Embedding(output_dim, emb_dim, padding_idx=PAD_IDX)
        self.rnn = nn.GRU(emb_dim, dec_hid_dim, batch_first=True)
        self.fc_out = nn.Linear(dec_hid_dim, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input, hidden):
        input = input.unsqueeze(1)
        embedded = self.dropout(self.embedding(input))
        output, hidden = self.rnn(embedded, hidden.unsqueeze(0))
        prediction = self.fc_out(output.squeeze(1))
        return prediction, hidden.squeeze(0)


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, src_len, trg, teacher_forcing_ratio=0.5):
        batch_size, trg_len = trg.shape
        trg_vocab_size = self.decoder.output_dim
        outputs = torch.zeros(batch_size, trg_len, trg_vocab_size)
        _, hidden = self.encoder(src, src_len)
        input = trg[:, 0]
        for t in range(1, trg_len):
            output, hidden = self.decoder(input, hidden)
            outputs[:, t] = output
            teacher_force = random.random() < teacher_forcing_ratio
            top1 = output.argmax(1)
            input = trg[:, t] if teacher_force else top1
        return outputs


def init_weights(m):
    for name, param in m.named_parameters():
        if "weight" in name:
            nn.init.normal_(param.data, mean=0, std=0.01)
        else:
            nn.init.constant_(param.data, 0)


def train(model, iterator, optimizer, criterion, clip):
    model.train()
    epoch_loss = 0
    for i, (src, src_len, trg) in enumerate(iterator):
        optimizer.zero_grad()
        output = model(src, src_len, trg)
        output_dim = output.shape[-1]
        output = output[:, 1:].reshape(-1, output_dim)
        trg = trg[:, 1:].reshape(-1)
        loss = criterion(output, trg)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        epoch_loss += loss.item()
    return epoch_loss / len(iterator)


def evaluate(model, iterator, criterion):
    model.eval()
    epoch_loss = 0
    with torch.no_grad():
        for i, (src, src_len, trg) in enumerate(iterator):
            output = model(src, src_len, trg, 0)
            output_dim = output.shape[-1]
            output = output[:, 1:].reshape(-1, output_dim)
            trg = trg[:, 1:].reshape(-1)
            loss = criterion(output, trg)
            epoch_loss += loss.item()
    return epoch_loss / len(iterator)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab_size", type=int, default=40)
    parser.add_argument("--emb_dim", type=int, default=16)
    parser.add_argument("--enc_hid_dim", type=int, default=24)
    parser.add_argument("--dec_hid_dim", type=int, default=32)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--clip", type=float, default=1.0)
    args = parser.parse_args()

    train_data = ReversalPairs(30, args.vocab_size, seed=0)
    valid_data = ReversalPairs(10, args.vocab_size, seed=1)
    train_loader = DataLoader(train_data, batch_size=args.batch_size, shuffle=True, collate_fn=collate_batch)
    valid_loader = DataLoader(valid_data, batch_size=args.batch_size, collate_fn=collate_batch)

    enc = Encoder(args.vocab_size, args.emb_dim, args.enc_hid_dim, args.dec_hid_dim, args.dropout)
    dec = Decoder(args.vocab_size, args.emb_dim, args.dec_hid_dim, args.dropout)
    model = Seq2Seq(enc, dec)
    model.apply(init_weights)

    optimizer = torch.optim.Adam(model.parameters())
    criterion = nn.CrossEntropyLoss(ignore_index=PAD_IDX)
    for epoch in range(args.epochs):
        train_loss = train(model, train_loader, optimizer, criterion, args.clip)
        valid_loss = evaluate(model, valid_loader, criterion)
        print(f"epoch {epoch + 1}: train {train_loss:.3f} valid {valid_loss:.3f}")


if __name__ == "__main__":
    main()
