# known-miss: timm.create_model is unknown: build_model_with_cfg gets the keyword arguments, but the pretrained config is unknown (timm's registry of them is filled by generate_default_cfgs: DefaultCfg instances in a defaultdict edited through aliases), so _update_default_model_kwargs leaves the keywords' keys unknown
import timm
import torch

model = timm.create_model("resnet18", in_chans=1, num_classes=2)
rgb = torch.randn(8, 3, 64, 64)
scores = model(rgb)  # E: TS101
