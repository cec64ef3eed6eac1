"""Torch models, the training loop, stored predictions, classifier sets, and device/seed handling."""

from credalbook.nn.architectures import build_topology, DenseNet, FAMILIES, LeNet5, PadCropFlip, WideResNet
from credalbook.nn.device import resolve_device, seed_everything
from credalbook.nn.ensembles import (
    backbone_features,
    BackboneFeatures,
    classifier_sets,
    ClassifierSet,
    HeadConfig,
    MemberPredictions,
    train_classifier_set,
)
from credalbook.nn.loop import Callback, EarlyStopping, LambdaCallback, train_loop
from credalbook.nn.models import (
    as_float_tensor,
    as_label_tensor,
    check_feature_network,
    count_parameters,
    dropout_modules,
    mc_dropout_predict,
    MLP,
    SmallCNN,
    stochastic_predict,
)
from credalbook.nn.predictions import build_model, ModelPredictions, PredictionsConfig, train_predictions
from credalbook.nn.training import fit, FitConfig, predict_logits, predict_proba, TrainResult
from credalbook.nn.vgg import ThreeConvNet, VGG16_LAYERS, VGGNet

__all__ = [
    "build_topology",
    "DenseNet",
    "FAMILIES",
    "LeNet5",
    "PadCropFlip",
    "WideResNet",
    "resolve_device",
    "seed_everything",
    "backbone_features",
    "BackboneFeatures",
    "classifier_sets",
    "ClassifierSet",
    "HeadConfig",
    "MemberPredictions",
    "train_classifier_set",
    "as_float_tensor",
    "as_label_tensor",
    "check_feature_network",
    "Callback",
    "EarlyStopping",
    "LambdaCallback",
    "train_loop",
    "count_parameters",
    "dropout_modules",
    "mc_dropout_predict",
    "stochastic_predict",
    "MLP",
    "SmallCNN",
    "build_model",
    "ModelPredictions",
    "PredictionsConfig",
    "train_predictions",
    "fit",
    "FitConfig",
    "predict_logits",
    "predict_proba",
    "TrainResult",
    "ThreeConvNet",
    "VGG16_LAYERS",
    "VGGNet",
]
