// SPDX-License-Identifier: Apache-2.0
// protoc-gen-boxcar: protoc's plugin for Boxcar services.
//   protoc --plugin=protoc-gen-boxcar=PATH --boxcar_out=DIR [--boxcar_opt=runtime_include=P]
//   X.proto
// railyard_generate_boxcar() (cmake/RailyardBoxcar.cmake) runs it for a CMake target.
#include <google/protobuf/compiler/plugin.h>

#include "app/protoc-gen-boxcar/boxcar_generator.h"

int main(int argc, char** argv) {
  railyard::boxcar::BoxcarGenerator generator;
  return google::protobuf::compiler::PluginMain(argc, argv, &generator);
}
