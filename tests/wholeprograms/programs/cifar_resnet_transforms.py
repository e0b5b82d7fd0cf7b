"""A ResNet for CIFAR-10 in the style of the well-known pytorch-cifar training scripts: argparse
options, a BasicBlock with a 1x1-convolution shortcut where the stride or the width changes, three
stages of blocks built by `_make_layer`, global average pooling, training and test transforms
(random crop with padding, horizontal flip, normalisation) composed as torchvision's are, SGD with a
cosine schedule, and a test loop that counts correct predictions.  A CIFAR-10-like dataset of random
32x32 pictures stands in for the real one (its samples are what ToTensor gives: [3, 32, 32])."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, Dataset

CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class RandomCrop:
    def __init__(self, size, padding=0):
        self.size = size
        self.padding = padding

    def __call__(self, img):
        if self.padding > 0:
            img = F.pad(img, (self.padding, self.padding, self.padding, self.padding))
        _, h, w = img.shape
        i = int(torch.randint(0, h - self.size + 1, (1,)))
        j = int(torch.randint(0, w - self.size + 1, (1,)))
        return img[:, i : i + self.size, j : j + self.size]


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if torch.rand(1).item() < self.p:
            return img.flip(-1)
        return img


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def __call__(self, img):
        return (img - self.mean) / self.std


class FakeCIFAR10(Dataset):
    """CIFAR10(root, train, transform) with random pictures in place of the files."""

    def __init__(self, root, train=True, transform=None, size=None):
        self.root = root
        self.train = train
        self.transform = transform
        n = size if size is not None else (50000 if train else 10000)
        g = torch.Generator().manual_seed(0 if train else 1)
        self.data = torch.rand(n, 3, 32, 32, generator=g)
        self.targets = torch.randint(0, 10, (n,), generator=g).tolist()

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        img, target = self.data[index], self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        return img, target


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super(BasicBlock, self).__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)

        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(self.expansion * planes),
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        out = F.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=10, width=16):
        super(ResNet, self).__init__()
        self.in_planes = width

        self.conv1 = nn.Conv2d(3, width, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.layer1 = self._make_layer(block, width, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, width * 2, num_blocks[1], stride=2)
        self.layer3 = self._make_layer(block, width * 4, num_blocks[2], stride=2)
        self.linear = nn.Linear(width * 4 * block.expansion, num_classes)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for stride in strides:
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        out = F.avg_pool2d(out, out.size(3))
        out = out.view(out.size(0), -1)
        out = self.linear(out)
        return out


def ResNet20(num_classes=10):
    return ResNet(BasicBlock, [3, 3, 3], num_classes=num_classes)


def train(epoch, net, trainloader, optimizer, criterion, device):
    net.train()
    train_loss = 0
    correct = 0
    total = 0
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()

        train_loss += loss.item()
        _, predicted = outputs.max(1)
        total += targets.size(0)
        correct += predicted.eq(targets).sum().item()
    print(f"epoch {epoch} loss {train_loss / (batch_idx + 1):.3f} acc {100.0 * correct / total:.1f}%")


def test(net, testloader, criterion, device):
    net.eval()
    test_loss = 0
    correct = 0
    total = 0
    with torch.no_grad():
        for batch_idx, (inputs, targets) in enumerate(testloader):
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = net(inputs)
            loss = criterion(outputs, targets)

            test_loss += loss.item()
            _, predicted = outputs.max(1)
            total += targets.size(0)
            correct += predicted.eq(targets).sum().item()
    return 100.0 * correct / total


def main():
    parser = argparse.ArgumentParser(description="PyTorch CIFAR10 Training")
    parser.add_argument("--lr", default=0.1, type=float, help="learning rate")
    parser.add_argument("--batch-size", default=16, type=int)
    parser.add_argument("--epochs", default=1, type=int)
    parser.add_argument("--train-size", default=40, type=int, help="images used for training")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"

    transform_train = Compose(
        [
            RandomCrop(32, padding=4),
            RandomHorizontalFlip(),
            Normalize(CIFAR_MEAN, CIFAR_STD),
        ]
    )
    transform_test = Compose([Normalize(CIFAR_MEAN, CIFAR_STD)])

    trainset = FakeCIFAR10(root="./data", train=True, transform=transform_train, size=args.train_size)
    trainloader = DataLoader(trainset, batch_size=args.batch_size, shuffle=True, num_workers=0)
    testset = FakeCIFAR10(root="./data", train=False, transform=transform_test, size=20)
    testloader = DataLoader(testset, batch_size=10, shuffle=False, num_workers=0)

    net = ResNet20().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)

    for epoch in range(args.epochs):
        train(epoch, net, trainloader, optimizer, criterion, device)
        acc = test(net, testloader, criterion, device)
        scheduler.step()
        print(f"test acc {acc:.1f}%")


if __name__ == "__main__":
    main()
