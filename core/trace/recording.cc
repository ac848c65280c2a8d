// SPDX-License-Identifier: Apache-2.0
#include "core/trace/recording.h"

namespace railyard::trace {

std::string_view WorkloadOpName(WorkloadOpKind op) {
  switch (op) {
    case WorkloadOpKind::kGet:
      return "get";
    case WorkloadOpKind::kPut:
      return "put";
    case WorkloadOpKind::kDelete:
      return "delete";
  }
  return "unknown";
}

bool ParseWorkloadOpName(std::string_view name, WorkloadOpKind* op) {
  for (WorkloadOpKind kind :
       {WorkloadOpKind::kGet, WorkloadOpKind::kPut, WorkloadOpKind::kDelete}) {
    if (name == WorkloadOpName(kind)) {
      *op = kind;
      return true;
    }
  }
  return false;
}

std::string NodeCommandEventDetail(const admin::CommandEvent& command) {
  // The admin service writes a non-empty detail with its own leading space (" indexes 1,2").
  return command.by() + command.detail() + " -> " + command.result();
}

}  // namespace railyard::trace
