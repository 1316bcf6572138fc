"""The class report's style sheet, inline in the page: no file or font is fetched.

The students' table's sort rules depend on its columns: grader.reports.class_page adds them.
"""

STYLE = (
    "body{font-family:sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;"
    "line-height:1.5;color:#222}"
    "table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #bbb;"
    "padding:.25rem .5rem;text-align:left}.number{text-align:right}"
    ".note{color:#555;font-size:.9rem}"
    ".chart .bar{fill:#3b6ea5}.chart .bar.full{fill:#2e7d32}.chart .track{fill:#e8edf3}"
    ".chart .axis{stroke:#999}.chart text{font-size:12px;fill:#222}"
    ".chart text.count{font-size:10px}svg.chart{max-width:100%;height:auto}"
    ".sortable{position:relative;overflow-x:auto}"
    ".sort-choice{position:absolute;opacity:0;width:1px;height:1px;margin:0}"
    ".students{display:block;border:1px solid #bbb}.students thead,.students tbody{display:flex;"
    "flex-direction:column}.students th,.students td{border:0;border-bottom:1px solid #ddd;"
    "overflow-wrap:anywhere}.students th{background:#f2f4f7;font-size:.85rem;overflow-wrap:normal}"
    ".students label{cursor:pointer;padding:0 .15rem;border-radius:3px;color:#3b6ea5}"
    ".test-failure{margin:.35rem 0}.test-failure summary{cursor:pointer}"
    ".test-failure .count{display:inline-block;min-width:6.5rem;font-weight:bold}"
    ".category{color:#555}"
    ".side-by-side{display:grid;grid-template-columns:1fr 1fr;gap:1rem}"
    ".code-column{min-width:0}pre.code{overflow-x:auto;background:#f7f7f7;padding:.5rem;"
    "font-size:.8rem;border:1px solid #ddd}pre.code mark{background:#ffe08a}"
    ".similar-pair{margin:.5rem 0}.similar-pair summary{cursor:pointer}"
)
