// The LibTorch headers the torch folders use, compiled once per build into a precompiled
// header (CMakeLists.txt, SYMGNN_PCH) that every translation unit of those folders, their
// tests and the Python module loads instead of parsing them again: a .cpp still includes the
// narrow headers it uses (docs/architecture.md, "The build"), so it compiles the same with
// SYMGNN_PCH=OFF.
#pragma once
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/nn/init.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/serialize.h>
#include <torch/types.h>
#include <torch/utils.h>
