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

}  // namespace railyard::trace
