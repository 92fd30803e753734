"""CI: a green pytest run must have run something and skipped only for the allowed reasons.

    python .ci/check_junit.py REPORT.xml test/skip_reasons_allowed.txt

Lists every skip (and every strict xfail: a known defect), fails when no test ran, when one
failed, or when a skip's reason matches no pattern of the allow-list (third-party tools the
registries do not have).
"""
import ast
import re
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == 'testsuite' else list(root.iter('testsuite'))
tests = sum(int(s.get('tests', 0)) for s in suites)
skipped = sum(int(s.get('skipped', 0)) for s in suites)
bad = sum(int(s.get('failures', 0)) + int(s.get('errors', 0)) for s in suites)
ran = tests - skipped
print(f'ci: {ran} tests ran, {skipped} skipped, {bad} failed or errored')
with open(sys.argv[2]) as allowed_file:
    allowed = [re.compile(line.strip()) for line in allowed_file
               if line.strip() and not line.startswith('#')]
unexpected = []
for case in root.iter('testcase'):
    for skip in case.findall('skipped'):
        reason = skip.get('message', '')
        if reason == 'collection skipped':  # a module-level skip: (file, line, reason) as text
            try:
                reason = str(ast.literal_eval(skip.text or '')[2])
            except (ValueError, SyntaxError, IndexError, TypeError):
                reason = skip.text or reason
        if skip.get('type') == 'pytest.xfail':  # a known defect, strict: listed, not a skip
            print(f"ci: known defect {case.get('classname')}::{case.get('name')}: {reason}")
            continue
        if reason.startswith('Skipped: '):
            reason = reason[len('Skipped: '):]
        name = f"{case.get('classname')}::{case.get('name')}"
        print(f'ci: skipped {name}: {reason}')
        if not any(pattern.match(reason) for pattern in allowed):
            unexpected.append(name)
if unexpected:
    print(f'ci: {len(unexpected)} skips for a reason not in test/skip_reasons_allowed.txt: '
          + ', '.join(unexpected), file=sys.stderr)
sys.exit(0 if ran > 0 and bad == 0 and not unexpected else 1)
