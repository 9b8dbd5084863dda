"""``report.html``: what a person opens to see which segments were kept and why.

:mod:`wps.report.page` builds the report of one page output folder, :mod:`wps.report.batch` the
report of a ``wps batch`` folder (one row per page, linking to each page's report).

Only the builder is imported here: :mod:`wps.output` uses it, and the folder readers
(:mod:`wps.report.folders`, :mod:`wps.report.batch`) read the files :mod:`wps.page_folder`
names; :mod:`wps.report.overlay` draws ``overlay.png``.
"""

from .page import REPORT_FILE, PageFacts, page_report_html

__all__ = ["REPORT_FILE", "PageFacts", "page_report_html"]
