"""Bug: the second encoder stage is built for 16 input channels; the first one outputs 32.

A U-Net in the style of the widely copied PyTorch U-Net: DoubleConv blocks, Down = max-pool
then DoubleConv, Up = transposed convolution (or bilinear upsampling), pad to the skip
connection's size, concatenate.  Four //2 downsamplings; the input height is odd on purpose
(the pad in Up is what makes odd sizes work)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

from tensorshape import reveal_shape


class DoubleConv(nn.Module):
    """(convolution => [BN] => ReLU) * 2"""

    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.double_conv(x)  # E: TS101


class Down(nn.Module):
    """Downscaling with maxpool then double conv"""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels))

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    """Upscaling then double conv"""

    def __init__(self, in_channels, out_channels, bilinear=True):
        super().__init__()
        # if bilinear, use the normal convolutions to reduce the number of channels
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
            self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)
        else:
            self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
            self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        # input is CHW
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]

        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


class OutConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(OutConv, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels: int, n_classes: int, bilinear: bool = False):
        super(UNet, self).__init__()
        self.n_channels = n_channels
        self.n_classes = n_classes
        self.bilinear = bilinear

        self.inc = DoubleConv(n_channels, 16)
        self.down1 = Down(16, 32)
        self.down2 = Down(16, 64)
        self.down3 = Down(64, 128)
        factor = 2 if bilinear else 1
        self.down4 = Down(128, 256 // factor)
        self.up1 = Up(256, 128 // factor, bilinear)
        self.up2 = Up(128, 64 // factor, bilinear)
        self.up3 = Up(64, 32 // factor, bilinear)
        self.up4 = Up(32, 16, bilinear)
        self.outc = OutConv(16, n_classes)

    def forward(self, x: Float[Tensor, "batch channels height width"]):
        x1 = self.inc(x)
        reveal_shape(x1)
        x2 = self.down1(x1)
        reveal_shape(x2)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x5 = self.down4(x4)
        reveal_shape(x5)
        x = self.up1(x5, x4)
        reveal_shape(x)
        x = self.up2(x, x3)
        x = self.up3(x, x2)
        x = self.up4(x, x1)
        reveal_shape(x)
        logits = self.outc(x)
        reveal_shape(logits)
        return logits


def center_crop(skip: Float[Tensor, "b c h w"], levels: int = 3):
    """The same sizes the encoder sees, computed the way the decoder's crop needs them."""
    h = skip.shape[2]
    for _ in range(levels):
        skip = F.max_pool2d(skip, 2)
    reveal_shape(skip)
    bottom = F.avg_pool2d(F.avg_pool2d(F.avg_pool2d(F.pad(skip, [0, 0, 0, 0]), 1), 1), 1)
    reveal_shape(bottom)
    return skip, h


def main() -> None:
    model = UNet(n_channels=3, n_classes=2)
    images = torch.randn(2, 3, 37, 48)
    logits = model(images)
    reveal_shape(logits)
    masks = logits.argmax(dim=1)
    reveal_shape(masks)
    skip, _ = center_crop(torch.randn(2, 8, 37, 48))
    reveal_shape(skip)


if __name__ == "__main__":
    main()
