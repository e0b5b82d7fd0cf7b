"""A small LeNet-style CNN for CIFAR-10-sized images, configured by a dict as many course
notebooks do, with its own Dataset class and a validation split. Random images stand in for
the dataset."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, random_split

CONFIG = {
    "batch_size": 16,
    "lr": 1e-3,
    "epochs": 1,
    "channels": 3,
    "image_size": 32,
    "num_classes": 10,
    "conv1": 6,
    "conv2": 16,
    "fc1": 120,
    "fc2": 84,
}


class RandomImages(Dataset):
    def __init__(self, n, channels, size, num_classes):
        self.images = torch.randn(n, channels, size, size)
        self.labels = torch.randint(0, num_classes, (n,))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]


class LeNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.conv1 = nn.Conv2d(cfg["channels"], cfg["conv1"], 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(cfg["conv1"], cfg["conv2"], 5)
        side = ((cfg["image_size"] - 4) // 2 - 4) // 2
        self.fc1 = nn.Linear(cfg["conv2"] * side * side, cfg["fc1"])
        self.fc2 = nn.Linear(cfg["fc1"], cfg["fc2"])
        self.fc3 = nn.Linear(cfg["fc2"], cfg["num_classes"])

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def evaluate(model, loader):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for images, labels in loader:
            outputs = model(images)
            _, predicted = torch.max(outputs, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    return correct / total


def run(cfg):
    dataset = RandomImages(80, cfg["channels"], cfg["image_size"], cfg["num_classes"])
    train_set, val_set = random_split(dataset, [64, 16])
    train_loader = DataLoader(train_set, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_set, batch_size=cfg["batch_size"])

    net = LeNet(cfg)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
    for epoch in range(cfg["epochs"]):
        net.train()
        running_loss = 0.0
        for i, (inputs, labels) in enumerate(train_loader):
            optimizer.zero_grad()
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"epoch {epoch + 1} loss {running_loss / len(train_loader):.3f} val acc {evaluate(net, val_loader):.2f}")


if __name__ == "__main__":
    run(CONFIG)
