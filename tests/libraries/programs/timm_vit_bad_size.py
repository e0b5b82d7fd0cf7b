# known-miss: timm's create_model reaches build_model_with_cfg with the keyword arguments known, but resolve_pretrained_cfg is unknown (the registry of pretrained configs is filled by generate_default_cfgs: DefaultCfg instances in a defaultdict edited through aliases), so the img_size _update_default_model_kwargs sets is unknown: the model is unknown (built directly, the same ViT is checked: timm_vit_direct_bad_size)
import timm
import torch

model = timm.create_model("vit_small_patch16_224", num_classes=5)
images = torch.randn(2, 3, 128, 128)
logits = model(images)  # E: TS101
