// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/help_dialogs.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>
#include <QStringList>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace railyard::ui {

namespace {

QString PlainText(QString text) {
  text.remove(QLatin1Char('&'));
  if (text.endsWith(QStringLiteral("..."))) text.chop(3);
  if (text.endsWith(QChar(0x2026))) text.chop(1);
  return text;
}

void Collect(const QMenu* menu, const QString& menu_name, QVector<ShortcutRow>* rows) {
  for (const QAction* action : menu->actions()) {
    if (action->menu()) {
      Collect(action->menu(), menu_name, rows);
      continue;
    }
    QStringList keys;
    for (const QKeySequence& key : action->shortcuts()) {
      if (!key.isEmpty()) keys << key.toString(QKeySequence::NativeText);
    }
    if (!keys.isEmpty()) {
      rows->push_back({menu_name, PlainText(action->text()), keys.join(QStringLiteral(", "))});
    }
  }
}

QDialog* NewDialog(const QString& title, QWidget* body, QWidget* parent) {
  auto* dialog = new QDialog(parent);
  dialog->setWindowTitle(title);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  auto* layout = new QVBoxLayout(dialog);
  body->setParent(dialog);
  layout->addWidget(body);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  layout->addWidget(buttons);
  dialog->resize(560, 480);
  return dialog;
}

}  // namespace

QVector<ShortcutRow> ShortcutRows(const QMenuBar* menus) {
  QVector<ShortcutRow> rows;
  for (const QAction* top : menus->actions()) {
    if (top->menu()) Collect(top->menu(), PlainText(top->text()), &rows);
  }
  return rows;
}

QDialog* CreateShortcutsDialog(const QMenuBar* menus, QWidget* parent) {
  const QVector<ShortcutRow> rows = ShortcutRows(menus);
  auto* table = new QTableWidget(int(rows.size()), 3);
  table->setObjectName(QStringLiteral("shortcuts"));
  table->setHorizontalHeaderLabels(
      {QObject::tr("Keys"), QObject::tr("Action"), QObject::tr("Menu")});
  for (int i = 0; i < rows.size(); ++i) {
    table->setItem(i, 0, new QTableWidgetItem(rows[i].keys));
    table->setItem(i, 1, new QTableWidgetItem(rows[i].action));
    table->setItem(i, 2, new QTableWidgetItem(rows[i].menu));
  }
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->verticalHeader()->hide();
  table->horizontalHeader()->setStretchLastSection(true);
  table->resizeColumnsToContents();
  return NewDialog(QObject::tr("Railyard: keyboard shortcuts"), table, parent);
}

QString GlossaryHtml() {
  const QList<QPair<QString, QString>> terms = {
      {QObject::tr("Slot"),
       QObject::tr("The number a Boxcar server gives each connection at its handshake: its lowest "
                   "free one, never two live connections at once, freed when the connection "
                   "closes.")},
      {QObject::tr("Pool"),
       QObject::tr("A client's fixed-size set of connections, kept in slot order; a request takes "
                   "the idle connection with the lowest slot (the Nth concurrent request, the Nth "
                   "lowest), and a background acquirer keeps connecting to swap a better (lower) "
                   "slot for the worst in a full pool.")},
      {QObject::tr("Lame duck"),
       QObject::tr("A server that is draining: it tells its clients, answers new requests with "
                   "LAME_DUCK so they retry elsewhere, finishes the requests it has, and then "
                   "exits.")},
      {QObject::tr("Compaction set"),
       QObject::tr("The index files a flush merges into one: starting from the memtable, each "
                   "next-older index is merged while the new one is at least its size.")},
      {QObject::tr("Bloom page usefulness"),
       QObject::tr("Recent lookups that reached a Bloom page times the chance its index answers "
                   "\"no\"; the pager keeps the most useful pages in memory within the budget, "
                   "and a page not in memory answers \"maybe\".")},
      {QObject::tr("Recording"),
       QObject::tr("One SQLite file of what a cluster did (telemetry snapshots, commands, "
                   "workload), written live or by the simulator and replayed in the console.")},
      {QObject::tr("Updater"),
       QObject::tr("The one node of a cluster that takes every write (doc.Put, doc.Delete) into "
                   "its docstore queue.")},
      {QObject::tr("Replica"),
       QObject::tr("A node that follows the updater's queue, copying its segment files block for "
                   "block, and serves reads; it holds exactly the updater's documents as of a "
                   "point in the queue, and that point only moves forward.")},
      {QObject::tr("Lag"),
       QObject::tr("How far a replica is behind the updater, in documents and seconds; a read "
                   "from a replica without a position may be up to its lag old (tens of "
                   "milliseconds when tailing).")},
  };
  QString html = QStringLiteral("<dl>");
  for (const auto& [term, meaning] : terms) {
    html += QStringLiteral("<dt><b>%1</b></dt><dd>%2</dd>")
                .arg(term.toHtmlEscaped(), meaning.toHtmlEscaped());
  }
  return html + QStringLiteral("</dl>");
}

QDialog* CreateGlossaryDialog(QWidget* parent) {
  auto* text = new QTextBrowser;
  text->setObjectName(QStringLiteral("glossary"));
  text->setHtml(GlossaryHtml());
  return NewDialog(QObject::tr("Railyard: glossary"), text, parent);
}

}  // namespace railyard::ui
