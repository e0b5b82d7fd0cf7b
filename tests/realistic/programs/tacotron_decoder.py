# exact-at-least: 5
"""A Tacotron-style attention decoder as the common re-implementations write it: an
embedding and bidirectional GRU encoder, a prenet, an attention GRU cell with Bahdanau
(additive) attention over the encoder outputs, a decoder GRU cell, and a loop
``for t in range(T)`` over the mel frames (teacher forcing, ``r`` frames per step) whose
outputs are gathered in lists and stacked with ``torch.stack(outputs, 1)``. The
hyper-parameters come from a plain class of constants."""

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


class hparams:
    n_symbols = 40
    embedding_dim = 32
    encoder_dim = 32
    prenet_dim = 24
    attention_rnn_dim = 48
    attention_dim = 16
    decoder_rnn_dim = 48
    n_mels = 20
    r = 2


class Prenet(nn.Module):
    def __init__(self, in_dim, sizes):
        super().__init__()
        in_sizes = [in_dim] + sizes[:-1]
        self.layers = nn.ModuleList([nn.Linear(i, o) for i, o in zip(in_sizes, sizes)])

    def forward(self, x):
        for linear in self.layers:
            x = F.dropout(F.relu(linear(x)), p=0.5, training=True)
        return x


class BahdanauAttention(nn.Module):
    def __init__(self, query_dim, memory_dim, attention_dim):
        super().__init__()
        self.query_layer = nn.Linear(query_dim, attention_dim, bias=False)
        self.memory_layer = nn.Linear(memory_dim, attention_dim, bias=False)
        self.v = nn.Linear(attention_dim, 1, bias=False)

    def forward(self, query, processed_memory, memory, mask=None):
        # query: (B, query_dim); processed_memory: (B, T_in, attention_dim)
        processed_query = self.query_layer(query.unsqueeze(1))
        energies = self.v(torch.tanh(processed_query + processed_memory)).squeeze(-1)
        reveal_shape(energies)
        if mask is not None:
            energies = energies.masked_fill(mask, -float("inf"))
        weights = F.softmax(energies, dim=1)
        context = torch.bmm(weights.unsqueeze(1), memory).squeeze(1)
        return context, weights


class Encoder(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.embedding = nn.Embedding(hp.n_symbols, hp.embedding_dim)
        self.gru = nn.GRU(hp.embedding_dim, hp.encoder_dim // 2, batch_first=True, bidirectional=True)

    def forward(self, text):
        x = self.embedding(text)
        outputs, _ = self.gru(x)
        return outputs


class Decoder(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.n_mels = hp.n_mels
        self.r = hp.r
        self.attention_rnn_dim = hp.attention_rnn_dim
        self.decoder_rnn_dim = hp.decoder_rnn_dim
        self.encoder_dim = hp.encoder_dim
        self.prenet = Prenet(hp.n_mels * hp.r, [hp.prenet_dim, hp.prenet_dim])
        self.attention_rnn = nn.GRUCell(hp.prenet_dim + hp.encoder_dim, hp.attention_rnn_dim)
        self.attention = BahdanauAttention(hp.attention_rnn_dim, hp.encoder_dim, hp.attention_dim)
        self.decoder_rnn = nn.GRUCell(hp.attention_rnn_dim + hp.encoder_dim, hp.decoder_rnn_dim)
        self.mel_proj = nn.Linear(hp.decoder_rnn_dim + hp.encoder_dim, hp.n_mels * hp.r)
        self.stop_proj = nn.Linear(hp.decoder_rnn_dim + hp.encoder_dim, 1)

    def forward(self, memory, mels, mask=None):
        B = memory.size(0)
        # group r frames per decoder step: (B, T, n_mels) -> (B, T / r, n_mels * r)
        mels = mels.view(B, mels.size(1) // self.r, -1)
        reveal_shape(mels)
        T = mels.size(1)
        go_frame = memory.new_zeros(B, self.n_mels * self.r)
        frames = torch.cat([go_frame.unsqueeze(1), mels[:, :-1]], dim=1)
        prenet_out = self.prenet(frames)
        reveal_shape(prenet_out)

        processed_memory = self.attention.memory_layer(memory)
        attention_hidden = memory.new_zeros(B, self.attention_rnn_dim)
        decoder_hidden = memory.new_zeros(B, self.decoder_rnn_dim)
        context = memory.new_zeros(B, self.encoder_dim)

        mel_outputs, stop_outputs, alignments = [], [], []
        for t in range(T):
            cell_input = torch.cat((prenet_out[:, t], context), -1)
            attention_hidden = self.attention_rnn(cell_input, attention_hidden)
            context, weights = self.attention(attention_hidden, processed_memory, memory, mask)
            decoder_input = torch.cat((attention_hidden, context), -1)
            decoder_hidden = self.decoder_rnn(decoder_input, decoder_hidden)
            out = torch.cat((decoder_hidden, context), dim=1)
            mel_outputs.append(self.mel_proj(out))
            stop_outputs.append(self.stop_proj(out))
            alignments.append(weights)

        mel_outputs = torch.stack(mel_outputs, 1).view(B, T * self.r, self.n_mels)
        reveal_shape(mel_outputs)
        stop_outputs = torch.cat(stop_outputs, 1)
        reveal_shape(stop_outputs)
        alignments = torch.stack(alignments, 1)
        reveal_shape(alignments)
        return mel_outputs, stop_outputs, alignments


class Tacotron(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.encoder = Encoder(hp)
        self.decoder = Decoder(hp)

    def forward(self, text, text_lengths, mels):
        memory = self.encoder(text)
        reveal_shape(memory)
        mask = torch.arange(text.size(1))[None, :] >= text_lengths[:, None]
        return self.decoder(memory, mels, mask)


def main() -> None:
    torch.manual_seed(0)
    model = Tacotron(hparams)
    text = torch.randint(0, hparams.n_symbols, (3, 17))
    text_lengths = torch.tensor([17, 12, 9])
    mels = torch.randn(3, 30, hparams.n_mels)
    mel_out, stop_out, align = model(text, text_lengths, mels)
    loss = F.mse_loss(mel_out, mels) + F.binary_cross_entropy_with_logits(stop_out, torch.zeros_like(stop_out))
    loss.backward()
    print(loss.item(), align.shape)


if __name__ == "__main__":
    main()
