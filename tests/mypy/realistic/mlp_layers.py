"""An MLP whose hidden layers are built from a list of sizes; the head is sized from the wrong entry."""

import argparse

import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, in_dim, hidden, out_dim):
        super().__init__()
        dims = [in_dim] + hidden
        self.layers = nn.ModuleList([nn.Linear(dims[i], dims[i + 1]) for i in range(len(hidden))])
        self.head = nn.Linear(hidden[0], out_dim)

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)  # E: TS101


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args([])
    model = MLP(20, [64, 32], 3)
    x = torch.randn(args.batch_size, 20)
    print(model(x).shape)


if __name__ == "__main__":
    main()
