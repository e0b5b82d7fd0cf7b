"""A small model and data pipeline without shape bugs: nothing to report."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Regressor(nn.Module):
    def __init__(self, n_features, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def fit(epochs=2):
    xs, ys = torch.randn(64, 8), torch.randn(64)
    loader = DataLoader(TensorDataset(xs, ys), batch_size=16, shuffle=True)
    model = Regressor(8)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        for xb, yb in loader:
            loss = nn.functional.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model


if __name__ == "__main__":
    fit()
