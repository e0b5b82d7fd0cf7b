"""Keyword spotting on raw audio: the M5 network (Dai et al., "Very deep convolutional neural
networks for raw waveforms") on Speech Commands, as in the audio classification tutorial: a
dataset of (waveform, sample_rate, label, speaker_id, utterance_number) tuples of clips of
different lengths, resampled to 8 kHz, padded to the longest clip of each batch by a collate
function, and a training / test loop with a step learning rate schedule.

SPEECHCOMMANDS is replaced by random clips of the real sample rate and lengths so the script runs
anywhere in a second.
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, Dataset

labels = ["backward", "bed", "bird", "cat", "dog", "down", "eight", "five", "follow", "forward",
          "four", "go", "happy", "house", "learn", "left", "marvin", "nine", "no", "off", "on", "one",
          "right", "seven", "sheila", "six", "stop", "three", "tree", "two", "up", "visual", "wow",
          "yes", "zero"]


class SubsetSC(Dataset):
    """SPEECHCOMMANDS(root, subset=...) with random one-second-or-shorter clips at 16 kHz."""

    def __init__(self, subset, n_clips, sample_rate=16000):
        self.subset = subset
        self.sample_rate = sample_rate
        g = torch.Generator().manual_seed(0 if subset == "training" else 1)
        self.lengths = torch.randint(sample_rate * 7 // 8, sample_rate + 1, (n_clips,), generator=g).tolist()
        self.words = torch.randint(0, len(labels), (n_clips,), generator=g).tolist()

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, n):
        waveform = torch.randn(1, self.lengths[n]) * 0.1
        return waveform, self.sample_rate, labels[self.words[n]], "speaker", n % 5


class Resample(nn.Module):
    """Integer-factor decimation with a moving-average anti-aliasing filter."""

    def __init__(self, orig_freq=16000, new_freq=8000):
        super().__init__()
        self.factor = orig_freq // new_freq

    def forward(self, waveform):
        # pack batch
        shape = waveform.size()
        waveform = waveform.reshape(-1, 1, shape[-1])
        smoothed = F.avg_pool1d(waveform, self.factor, stride=self.factor)
        # unpack batch
        return smoothed.view(shape[:-1] + smoothed.shape[-1:])


def label_to_index(word):
    # Return the position of the word in labels
    return torch.tensor(labels.index(word))


def index_to_label(index):
    # Return the word corresponding to the index in labels
    return labels[index]


def pad_sequence(batch):
    # Make all tensor in a batch the same length by padding with zeros
    batch = [item.t() for item in batch]
    batch = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=0.0)
    return batch.permute(0, 2, 1)


def collate_fn(batch):
    # A data tuple has the form:
    # waveform, sample_rate, label, speaker_id, utterance_number

    tensors, targets = [], []

    # Gather in lists, and encode labels as indices
    for waveform, _, label, *_ in batch:
        tensors += [waveform]
        targets += [label_to_index(label)]

    # Group the list of tensors into a batched tensor
    tensors = pad_sequence(tensors)
    targets = torch.stack(targets)

    return tensors, targets


class M5(nn.Module):
    def __init__(self, n_input=1, n_output=35, stride=16, n_channel=32):
        super().__init__()
        self.conv1 = nn.Conv1d(n_input, n_channel, kernel_size=80, stride=stride)
        self.bn1 = nn.BatchNorm1d(n_channel)
        self.pool1 = nn.MaxPool1d(4)
        self.conv2 = nn.Conv1d(n_channel, n_channel, kernel_size=3)
        self.bn2 = nn.BatchNorm1d(n_channel)
        self.pool2 = nn.MaxPool1d(4)
        self.conv3 = nn.Conv1d(n_channel, 2 * n_channel, kernel_size=3)
        self.bn3 = nn.BatchNorm1d(2 * n_channel)
        self.pool3 = nn.MaxPool1d(4)
        self.conv4 = nn.Conv1d(2 * n_channel, 2 * n_channel, kernel_size=3)
        self.bn4 = nn.BatchNorm1d(2 * n_channel)
        self.pool4 = nn.MaxPool1d(4)
        self.fc1 = nn.Linear(2 * n_channel, n_output)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(self.bn1(x))
        x = self.pool1(x)
        x = self.conv2(x)
        x = F.relu(self.bn2(x))
        x = self.pool2(x)
        x = self.conv3(x)
        x = F.relu(self.bn3(x))
        x = self.pool3(x)
        x = self.conv4(x)
        x = F.relu(self.bn4(x))
        x = self.pool4(x)
        x = F.avg_pool1d(x, x.shape[-1])
        x = x.permute(0, 2, 1)
        x = self.fc1(x)
        return F.log_softmax(x, dim=2)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def number_of_correct(pred, target):
    # count number of correct predictions
    return pred.squeeze().eq(target).sum().item()


def get_likely_index(tensor):
    # find most likely label index for each element in the batch
    return tensor.argmax(dim=-1)


def train(model, transform, train_loader, optimizer, epoch, log_interval, device):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data = data.to(device)
        target = target.to(device)

        # apply transform and model on whole batch directly on device
        data = transform(data)
        output = model(data)

        # negative log-likelihood for a tensor of size (batch x 1 x n_output)
        loss = F.nll_loss(output.squeeze(), target)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        # print training stats
        if batch_idx % log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
                  f"({100. * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}")


def test(model, transform, test_loader, epoch, device):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data = data.to(device)
            target = target.to(device)

            # apply transform and model on whole batch directly on device
            data = transform(data)
            output = model(data)

            pred = get_likely_index(output)
            correct += number_of_correct(pred, target)

    print(f"\nTest Epoch: {epoch}\tAccuracy: {correct}/{len(test_loader.dataset)} "
          f"({100. * correct / len(test_loader.dataset):.0f}%)\n")


def main():
    parser = argparse.ArgumentParser(description="M5 keyword spotting on Speech Commands")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--n-train", type=int, default=20)
    parser.add_argument("--n-test", type=int, default=12)
    parser.add_argument("--new-sample-rate", type=int, default=8000)
    parser.add_argument("--log-interval", type=int, default=2)
    args = parser.parse_args()

    device = torch.device("cpu")
    train_set = SubsetSC("training", args.n_train)
    test_set = SubsetSC("testing", args.n_test)

    waveform, sample_rate, label, speaker_id, utterance_number = train_set[0]
    print("Shape of waveform: {}".format(waveform.size()))
    print("Sample rate of waveform: {}".format(sample_rate))

    transform = Resample(orig_freq=sample_rate, new_freq=args.new_sample_rate)
    transformed = transform(waveform)

    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              collate_fn=collate_fn, drop_last=False)
    test_loader = DataLoader(test_set, batch_size=args.batch_size, shuffle=False,
                             drop_last=False, collate_fn=collate_fn)

    model = M5(n_input=transformed.shape[0], n_output=len(labels))
    model.to(device)
    print(model)
    print("Number of parameters: %s" % count_parameters(model))

    optimizer = optim.Adam(model.parameters(), lr=args.lr, weight_decay=0.0001)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.1)

    for epoch in range(1, args.epochs + 1):
        train(model, transform, train_loader, optimizer, epoch, args.log_interval, device)
        test(model, transform, test_loader, epoch, device)
        scheduler.step()


if __name__ == "__main__":
    main()
