"""A user's write, judged by the emulator's rules file (for the coverage report)."""
import requests


def test_user_write(firebase_project):
    user = firebase_project.create_user()
    url = f"{firebase_project.url}/v1/projects/{firebase_project.project_id}/databases/(default)/documents/counters/c"
    r = requests.patch(url, json={"fields": {"n": {"integerValue": "1"}}}, headers=user.headers, timeout=10)
    assert r.status_code == 200, r.text
