# exact-at-least: 7
"""A WaveNet in the style of the common PyTorch re-implementations: causal convolutions by
left padding and cutting the right tail, a stack of dilated residual blocks (dilations
1, 2, 4, ... repeated over a number of stacks, from a config dataclass) with a gated
tanh * sigmoid activation, 1x1 residual and skip convolutions, the skips summed and
cropped to the output length, and a mu-law classification over quantisation channels."""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


@dataclass
class WaveNetConfig:
    layers_per_stack: int = 4
    stacks: int = 2
    residual_channels: int = 16
    dilation_channels: int = 16
    skip_channels: int = 32
    quantization_channels: int = 64
    kernel_size: int = 2


class CausalConv1d(nn.Conv1d):
    """A Conv1d that only looks at the past: pad on both sides, drop the right tail."""

    def __init__(self, in_channels, out_channels, kernel_size, dilation=1):
        self.__padding = (kernel_size - 1) * dilation
        super(CausalConv1d, self).__init__(
            in_channels, out_channels, kernel_size=kernel_size, padding=self.__padding, dilation=dilation
        )

    def forward(self, input):
        result = super(CausalConv1d, self).forward(input)
        if self.__padding != 0:
            return result[:, :, : -self.__padding]
        return result


class ResidualBlock(nn.Module):
    def __init__(self, residual_channels, dilation_channels, skip_channels, kernel_size, dilation):
        super().__init__()
        self.filter_conv = CausalConv1d(residual_channels, dilation_channels, kernel_size, dilation=dilation)
        self.gate_conv = CausalConv1d(residual_channels, dilation_channels, kernel_size, dilation=dilation)
        self.residual = nn.Conv1d(dilation_channels, residual_channels, 1)
        self.skip = nn.Conv1d(dilation_channels, skip_channels, 1)

    def forward(self, x):
        out = torch.tanh(self.filter_conv(x)) * torch.sigmoid(self.gate_conv(x))
        reveal_shape(out)
        skip = self.skip(out)
        return self.residual(out) + x, skip


class WaveNet(nn.Module):
    def __init__(self, config: WaveNetConfig):
        super().__init__()
        self.config = config
        self.start_conv = CausalConv1d(config.quantization_channels, config.residual_channels, config.kernel_size)
        dilations = [2**i for i in range(config.layers_per_stack)] * config.stacks
        self.receptive_field = sum(dilations) * (config.kernel_size - 1) + config.kernel_size
        self.blocks = nn.ModuleList(
            [
                ResidualBlock(
                    config.residual_channels,
                    config.dilation_channels,
                    config.skip_channels,
                    config.kernel_size,
                    d,
                )
                for d in dilations
            ]
        )
        self.end_conv_1 = nn.Conv1d(config.skip_channels, config.skip_channels, 1)
        self.end_conv_2 = nn.Conv1d(config.skip_channels, config.quantization_channels, 1)

    def forward(self, x, output_length):
        x = self.start_conv(x)
        reveal_shape(x)
        skip_sum = 0
        for block in self.blocks:
            x, skip = block(x)
            skip_sum = skip + skip_sum
        reveal_shape(skip_sum)
        out = F.relu(skip_sum[:, :, -output_length:])
        out = F.relu(self.end_conv_1(out))
        out = self.end_conv_2(out)
        reveal_shape(out)
        return out


def mu_law_encode(audio, quantization_channels=64):
    mu = quantization_channels - 1
    magnitude = torch.log1p(mu * torch.abs(audio)) / torch.log1p(torch.tensor(float(mu)))
    signal = torch.sign(audio) * magnitude
    return ((signal + 1) / 2 * mu + 0.5).long()


def main() -> None:
    torch.manual_seed(0)
    config = WaveNetConfig()
    model = WaveNet(config)
    audio = torch.rand(2, 200) * 2 - 1
    codes = mu_law_encode(audio, config.quantization_channels)
    reveal_shape(codes)
    inputs = F.one_hot(codes[:, :-1], config.quantization_channels).float().transpose(1, 2)
    reveal_shape(inputs)
    output_length = inputs.size(2) - model.receptive_field + 1
    logits = model(inputs, output_length)
    targets = codes[:, -output_length:]
    reveal_shape(targets)
    loss = F.cross_entropy(logits, targets)
    loss.backward()


if __name__ == "__main__":
    main()
