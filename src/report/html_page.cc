// The HTML page frame (inline style, the policy that forbids network access, the sorting
// script) and the section and table helpers.
#include <fmt/format.h>

#include "report/html_sections.h"
#include "report/html_writer.h"

namespace gpuwhy::report::html {
namespace {

// No fetch of any kind: no external script, style, font or image, and no form target.
constexpr const char* kPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
    "form-action 'none'; base-uri 'none'";

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:16px 24px;color:#1b1b1b;background:#fff}
h1{font-size:22px;margin:18px 0 6px}h2{font-size:18px;margin:0 0 4px}h3{font-size:15px;margin:10px 0 4px}
section{border-top:1px solid #ddd;padding:12px 0}.summary,.meta,.note{color:#555}.note{font-size:13px}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f5f5f5;padding:6px 8px;margin:4px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.finding{border:1px solid #ddd;border-left:6px solid #bab0ac;border-radius:4px;padding:8px 12px;margin:10px 0}
.sev-critical,.sev-high{border-left-color:#d62728}.sev-medium{border-left-color:#f28e2b}.sev-low{border-left-color:#edc948}
.finding h3 .sev{text-transform:uppercase;font-weight:700}.finding .rec{font-weight:400;color:#444}
.finding .title{margin:4px 0 6px;font-weight:600}
.kv{display:flex;gap:8px;margin:2px 0}.kv .k{flex:0 0 70px;color:#666}.kv .v{flex:1;min-width:0;overflow-wrap:anywhere}
.kv ul{margin:0;padding-left:18px}
table{border-collapse:collapse;margin:6px 0;font-size:13px;width:100%}
th,td{border-bottom:1px solid #eee;padding:3px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;white-space:nowrap}th{background:#f7f7f7}
table.sortable th{cursor:pointer}table.sortable th:after{content:" \2195";color:#aaa}
td.id{overflow-wrap:anywhere;min-width:14em}
.table-scroll{overflow-x:auto;max-width:100%}
.chart{margin:8px 0}.chart figcaption{font-weight:600;font-size:13px}
.chart-svg text{font-size:11px;fill:#444}.chart-svg .grid{stroke:#eee}
.chart-svg .line{fill:none;stroke-width:1.4}
.legend{font-size:12px;color:#444;margin:2px 0 8px}.legend span{margin-right:12px;white-space:nowrap}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
.checklist{list-style:none;padding-left:0}.checklist li{margin:3px 0}.checklist .sub{margin-left:22px;color:#555;font-size:13px}
.checklist .mark{display:inline-block;width:16px}.checklist .assessed .mark{color:#2ca02c}
.checklist .partly .mark{color:#f28e2b}.checklist .not-assessed .mark{color:#d62728}
.errors li{color:#b00}.rank{margin-bottom:32px}
)css";

// Click a header to sort its table by that column (numbers by their data-v value).
constexpr const char* kScript = R"js(
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var body=t.tBodies[0],rows=Array.from(body.rows),asc=th.dataset.asc!=='1';
      th.dataset.asc=asc?'1':'0';
      rows.sort(function(a,b){
        var x=a.cells[i],y=b.cells[i],u=x.dataset.v,v=y.dataset.v;
        var r=(u!==undefined&&v!==undefined)?(parseFloat(u)-parseFloat(v)):x.textContent.localeCompare(y.textContent);
        return asc?r:-r;});
      rows.forEach(function(r){body.appendChild(r);});});});});
)js";

}  // namespace

std::string PageStart(std::string_view title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>{}</title><style>{}</style></head><body>\n",
      kPolicy, Escape(title), kStyle);
}

std::string PageEnd() { return fmt::format("<script>{}</script>\n</body></html>\n", kScript); }

void OpenSection(std::string& out, std::string_view id, std::string_view title,
                 std::string_view summary) {
  out += id.empty() ? "<section>" : fmt::format("<section id=\"{}\">", Escape(id));
  Element(out, "h2", title);
  if (!summary.empty()) Element(out, "p", summary, "class=\"summary\"");
}

void CloseSection(std::string& out) { out += "</section>\n"; }

Cell Num(std::string text, double value) { return Cell{std::move(text), value, true, {}}; }

namespace {

// Text with a run of kLongToken characters or more without a space: a kernel name, a path, an
// id. Only such cells may break anywhere; words break at spaces (break-all cut "recoverable"
// and "memory" mid-word in every narrow column).
constexpr size_t kLongToken = 24;
bool HasLongToken(std::string_view text) {
  size_t run = 0;
  for (char c : text) {
    run = c == ' ' ? 0 : run + 1;
    if (run >= kLongToken) return true;
  }
  return false;
}

}  // namespace

void Table(std::string& out, const std::vector<std::string>& headers,
           const std::vector<std::vector<Cell>>& rows, bool sortable) {
  // Wide tables scroll inside their own box: the page (or a notebook cell) keeps its width.
  out += "<div class=\"table-scroll\">";
  out += sortable ? "<table class=\"sortable\"><thead><tr>" : "<table><thead><tr>";
  for (const std::string& h : headers) Element(out, "th", h);
  out += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const Cell& c : row) {
      std::string attrs = c.numeric ? fmt::format("class=\"n\" data-v=\"{}\"", c.sort_value)
                          : HasLongToken(c.text) ? "class=\"name id\""
                                                 : "class=\"name\"";
      if (!c.title.empty()) attrs += " title=\"" + Escape(c.title) + "\"";
      Element(out, "td", c.text, attrs);
    }
    out += "</tr>";
  }
  out += "</tbody></table></div>\n";
}

}  // namespace gpuwhy::report::html
