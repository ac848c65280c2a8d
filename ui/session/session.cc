// SPDX-License-Identifier: Apache-2.0
#include "ui/session/session.h"

#include <QFileInfo>
#include <QLocale>
#include <QStandardPaths>
#include <utility>

#include "core/cluster/alert_rules.h"
#include "core/cluster/cluster_file.h"
#include "ui/actions/action_controller.h"
#include "ui/models/alert_model.h"
#include "ui/models/bloom_model.h"
#include "ui/models/compaction_model.h"
#include "ui/models/flow_model.h"
#include "ui/models/incident_model.h"
#include "ui/models/overview_model.h"
#include "ui/models/replication_lag_model.h"
#include "ui/models/replication_model.h"
#include "ui/models/slot_matrix_model.h"
#include "ui/models/throughput_model.h"
#include "ui/session/plain_reason.h"
#include "ui/session/token_store.h"
#include "ui/sources/live_source.h"
#include "ui/sources/recorder.h"
#include "ui/sources/replay_source.h"

namespace railyard::ui {

Session::Session(const Options& options, QObject* parent)
    : QObject(parent),
      options_(options),
      state_(new ClusterState),
      live_(new LiveSource(state_, this)),
      replay_(new ReplaySource(state_, this)),
      recorder_(new Recorder(state_, this)),
      tokens_(new TokenStore(options.use_keyring, this)),
      actions_(new ActionController(state_, nullptr)) {
  LiveSource::Options live_options;
  live_options.poll_hz = options_.poll_hz;
  live_->SetOptions(live_options);
  actions_->setParent(this);
  actions_->SetTokenProvider([this](int node) {
    if (node < 0 || node >= state_->NodeCount()) return QString();
    const QString stored = tokens_->Token(state_->Node(node).admin_address);
    return stored.isEmpty() ? live_->Token(node) : stored;
  });
  actions_->SetTlsProvider([this](int node) { return live_->Tls(node); });
  actions_->SetAuditPath(!options_.audit_path.isEmpty()
                             ? options_.audit_path
                             : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                                   QStringLiteral("/audit.sqlite"));
  connect(actions_, &ActionController::ActionFinished, recorder_, &Recorder::RecordAction);
  connect(live_, &LiveSource::TokenRefused, this, &Session::TokenRefused);
  connect(this, &Session::TokensChanged, actions_, &ActionController::TokensChanged);
  models_.overview = new OverviewModel(state_, this);
  models_.slots = new SlotMatrixModel(state_, this);
  models_.flow = new FlowModel(state_, this);
  models_.throughput = new ThroughputModel(state_, this);
  models_.replication = new ReplicationModel(state_, this);
  models_.replication_lag = new ReplicationLagModel(state_, this);
  models_.compaction = new CompactionModel(state_, this);
  models_.bloom = new BloomModel(state_, this);
  models_.alerts = new AlertModel(
      state_, options_.alert_rules ? *options_.alert_rules : cluster::DefaultAlertRules(),
      options_.alert_rules ? options_.alert_rules_source : tr("built-in"), this);
  models_.incidents = new IncidentModel(models_.throughput, this);
  // Each alert that fires or resolves is a mark on its node's time axes.
  connect(models_.alerts, &AlertModel::AlertsChanged, this,
          [this](const std::vector<cluster::AlertTransition>& changes, bool) {
            for (const cluster::AlertTransition& t : changes) {
              if (t.phase == cluster::AlertPhase::kPending) continue;
              const int node = state_->IndexOfName(QString::fromStdString(t.node));
              if (node < 0) continue;
              models_.throughput->AddMark(
                  t.unix_ms, node,
                  QStringLiteral("%1 %2").arg(QString::fromStdString(t.rule),
                                              cluster::AlertPhaseName(t.phase)),
                  QString::fromStdString(t.summary));
            }
          });
  // Children are deleted in the order they were added: the state every source and model reads
  // goes last.
  state_->setParent(this);
}

Session::~Session() { Stop(); }

void Session::Stop() {
  recorder_->Stop();
  live_->Stop();
}

void Session::Reset(Mode mode) {
  Q_EMIT AboutToReset();
  if (recorder_->Recording()) recorder_->Stop();
  replay_->Close();
  live_->ClearNodes();
  state_->Clear();
  mode_ = mode;
  source_description_.clear();
  restart_command_.clear();
}

bool Session::ReadOnly() const {
  if (options_.read_only || mode_ != Mode::kLive) return true;
  for (int i = 0; i < state_->NodeCount(); ++i) {
    if (!live_->Token(i).isEmpty()) return false;
  }
  return true;  // No tokens at all: only telemetry is open to us.
}

QString Session::ReadOnlyReason() const {
  return options_.read_only     ? tr("Started with --read-only")
         : mode_ != Mode::kLive ? tr("A recording cannot be acted on")
         : ReadOnly()           ? tr("No token: telemetry only")
                                : tr("Actions need an operator token");
}

double Session::PollHz() const { return live_->options().poll_hz; }

bool Session::AddNode(const QString& admin_address, const QString& token, QString* error,
                      const QString& name) {
  if (mode_ == Mode::kLive) {
    if (const int existing = state_->IndexOfAddress(admin_address.trimmed()); existing >= 0) {
      if (token.isEmpty() || token == live_->Token(existing)) return true;
      if (error) {
        *error = tr("%1 is already watched (as %2) with another token. To change its token, "
                    "select it and use Node > Edit token.")
                     .arg(admin_address.trimmed(), state_->Node(existing).name);
      }
      return false;
    }
  }
  if (mode_ != Mode::kLive) Reset(Mode::kLive);
  const bool added = AddLiveNode(admin_address, token, error, name,
                                 cluster::ApplyTlsFlags(options_.tls, std::nullopt));
  if (added) {
    source_description_ = tr("Live");
    live_->Start();
  }
  Q_EMIT SourceChanged();
  return added;
}

bool Session::AddLiveNode(const QString& admin_address, const QString& token, QString* error,
                          const QString& name, std::optional<rpc::TlsClientOptions> tls) {
  const QString t = token.isEmpty() ? tokens_->Token(admin_address.trimmed()) : token;
  if (live_->AddNode(admin_address, t, error, name, std::move(tls)) < 0) return false;
  if (!token.isEmpty()) {
    tokens_->SetToken(admin_address.trimmed(), token);
    Q_EMIT TokensChanged();
  }
  return true;
}

bool Session::SetNodeToken(int node_index, const QString& token) {
  if (mode_ != Mode::kLive || node_index < 0 || node_index >= state_->NodeCount()) return false;
  tokens_->SetToken(state_->Node(node_index).admin_address, token);
  live_->SetToken(node_index, token);
  Q_EMIT TokensChanged();
  return true;
}

QString Session::RemoveNode(int node_index) {
  if (mode_ != Mode::kLive || node_index < 0 || node_index >= state_->NodeCount()) return {};
  const QString name = state_->Node(node_index).name;
  const QString address = state_->Node(node_index).admin_address;
  live_->RemoveNode(node_index);
  // Its stored token goes with it, and the line says so: a keyring outlives the session.
  const bool known = tokens_->Forget(address);
  Q_EMIT TokensChanged();
  Q_EMIT SourceChanged();
  return tokens_->backend() == TokenStore::Backend::kKeyring
             ? tr("Removed %1; its token was deleted from the keyring").arg(name)
         : known ? tr("Removed %1; its token was forgotten").arg(name)
                 : tr("Removed %1").arg(name);
}

bool Session::OpenClusterFile(const QString& path, const QString& token, QString* error) {
  config::Cluster cluster;
  if (rpc::Status s = cluster::LoadClusterFile(path.toStdString(), &cluster); !s.ok()) {
    if (error) *error = PlainReason(QString::fromStdString(s.ToString()), path);
    return false;
  }
  if (cluster.node_size() == 0) {
    if (error) *error = tr("%1 lists no nodes").arg(path);
    return false;
  }
  Reset(Mode::kLive);
  restart_command_ = QString::fromStdString(cluster.restart_command());
  // The file's admin_tls block, with the console's --tls flags on top.
  const std::optional<rpc::TlsClientOptions> tls =
      cluster::ApplyTlsFlags(options_.tls, cluster::AdminTlsOf(cluster));
  for (const config::ClusterMember& member : cluster.node()) {
    const QString address = QString::fromStdString(member.admin());
    const QString stored = tokens_->Token(address);
    // Added while stopped, then started once: no restart per node.
    if (!AddLiveNode(address, stored.isEmpty() ? token : stored, error,
                     QString::fromStdString(member.name()), tls)) {
      Q_EMIT SourceChanged();
      return false;
    }
    // Tokens kept from an earlier session arrive from the keyring a moment later.
    if (stored.isEmpty() && token.isEmpty()) {
      tokens_->Load(address, [this, address](const QString& loaded) {
        const int index = state_->IndexOfAddress(address);
        if (!loaded.isEmpty() && index >= 0 && mode_ == Mode::kLive) {
          live_->SetToken(index, loaded);
          Q_EMIT TokensChanged();
        }
      });
    }
  }
  source_description_ = tr("Live: %1")
                            .arg(cluster.name().empty() ? QFileInfo(path).fileName()
                                                        : QString::fromStdString(cluster.name()));
  live_->Start();
  Q_EMIT SourceChanged();
  return true;
}

bool Session::OpenRecording(const QString& path, QString* error) {
  Reset(Mode::kReplay);
  if (!replay_->Open(path, error)) {
    if (error) *error = PlainReason(*error, path);
    mode_ = Mode::kNone;
    Q_EMIT SourceChanged();
    return false;
  }
  source_description_ = tr("Replay: %1").arg(QFileInfo(path).fileName());
  Q_EMIT SourceChanged();
  return true;
}

bool Session::StartRecording(const QString& path, QString* error) {
  if (mode_ != Mode::kLive) {
    if (error) *error = tr("Recording needs a live cluster");
    return false;
  }
  return recorder_->Start(path, error);
}

QString Session::StopRecording() {
  const QString path = recorder_->Path();
  const quint64 snapshots = recorder_->SnapshotsQueued();
  const bool was_recording = recorder_->Recording();
  const QString error = recorder_->Stop();
  if (!error.isEmpty()) return tr("Recording: %1").arg(error);
  if (!was_recording) return {};
  // Where it went and how much, so the operator knows it is safe to share (C16).
  const QLocale locale;
  return tr("Recorded %1 snapshots into %2 (%3)")
      .arg(locale.toString(snapshots), path, locale.formattedDataSize(QFileInfo(path).size()));
}

void Session::KeepTokensForSessionOnly(const QStringList& addresses) {
  for (const QString& address : addresses) tokens_->KeepForSessionOnly(address);
}

std::vector<cluster::CopyTarget> Session::CopyTargets() const {
  std::vector<cluster::CopyTarget> targets;
  if (mode_ != Mode::kLive) return targets;
  for (int i = 0; i < state_->NodeCount(); ++i) {
    const NodeView& node = state_->Node(i);
    const std::optional<rpc::Endpoint> admin = rpc::ParseEndpoint(node.admin_address.toStdString());
    if (!admin) continue;
    const QString stored = tokens_->Token(node.admin_address);
    targets.push_back({node.name.toStdString(), *admin,
                       (stored.isEmpty() ? live_->Token(i) : stored).toStdString(), live_->Tls(i)});
  }
  return targets;
}

QString Session::SummaryLine() const {
  int by_health[7] = {0, 0, 0, 0, 0, 0, 0};
  double requests = 0, errors = 0;
  int slots = 0;
  for (int i = 0; i < state_->NodeCount(); ++i) {
    const NodeView& node = state_->Node(i);
    ++by_health[static_cast<int>(node.health)];
    const OverviewModel::Row row = OverviewModel::RowOf(node, state_->NowMs());
    if (IsLive(node.health)) {
      requests += row.requests_per_s;
      errors += row.errors_per_s;
      slots += row.slots;
    }
  }
  return QStringLiteral(
             "%1 nodes: %2 serving, %3 lame duck, %4 unreachable, %5 stale, %6 connecting, "
             "%7 starting, %8 token refused; %9 req/s, %10 errors/s, %11 slots in use")
      .arg(state_->NodeCount())
      .arg(by_health[int(NodeHealth::kServing)])
      .arg(by_health[int(NodeHealth::kLameDuck)])
      .arg(by_health[int(NodeHealth::kUnreachable)])
      .arg(by_health[int(NodeHealth::kStale)])
      .arg(by_health[int(NodeHealth::kConnecting)])
      .arg(by_health[int(NodeHealth::kStarting)])
      .arg(by_health[int(NodeHealth::kTokenRefused)])
      .arg(requests, 0, 'f', 0)
      .arg(errors, 0, 'f', 1)
      .arg(slots);
}

}  // namespace railyard::ui
