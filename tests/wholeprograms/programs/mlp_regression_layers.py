"""A tabular regression MLP whose layers come from a list of widths in a config dict, as many
Kaggle notebooks build them, with feature standardisation, a train/validation split by
Subset, early stopping on the validation loss, and an evaluation helper. Random features
stand in for the table."""

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset, TensorDataset

DEFAULTS = {"n_features": 20, "widths": [64, 32, 16], "dropout": 0.1, "batch_size": 25, "epochs": 3, "patience": 2}


def make_mlp(n_features, widths, dropout):
    layers = []
    in_f = n_features
    for w in widths:
        layers += [nn.Linear(in_f, w), nn.BatchNorm1d(w), nn.ReLU(), nn.Dropout(dropout)]
        in_f = w
    layers.append(nn.Linear(in_f, 1))
    return nn.Sequential(*layers)


def standardise(x, mean=None, std=None):
    if mean is None:
        mean = x.mean(dim=0, keepdim=True)
        std = x.std(dim=0, keepdim=True) + 1e-6
    return (x - mean) / std, mean, std


def evaluate(model, loader, loss_fn):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for xb, yb in loader:
            pred = model(xb).squeeze(-1)
            total += loss_fn(pred, yb).item() * len(yb)
            n += len(yb)
    return total / n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    cfg = dict(DEFAULTS)

    features = torch.randn(150, cfg["n_features"])
    target = features[:, :3].sum(dim=1) + 0.1 * torch.randn(150)
    features, mean, std = standardise(features)
    data = TensorDataset(features, target)
    train_set = Subset(data, range(0, 100))
    val_set = Subset(data, range(100, 150))
    train_loader = DataLoader(train_set, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_set, batch_size=cfg["batch_size"])

    model = make_mlp(cfg["n_features"], cfg["widths"], cfg["dropout"])
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    best, bad = float("inf"), 0
    for epoch in range(cfg["epochs"]):
        model.train()
        for xb, yb in train_loader:
            pred = model(xb).squeeze(-1)
            loss = loss_fn(pred, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        val = evaluate(model, val_loader, loss_fn)
        print(f"epoch {epoch}: val mse {val:.3f}")
        if val < best:
            best, bad = val, 0
        else:
            bad += 1
            if bad >= cfg["patience"]:
                break
    new_rows, _, _ = standardise(torch.randn(4, cfg["n_features"]), mean, std)
    print(model.eval()(new_rows).shape)


if __name__ == "__main__":
    main()
