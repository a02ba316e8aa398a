"""A shell log planting 25 secret values in the shapes people leave in terminals (the red team's
appendix F: environment assignments, headers, flags, URLs, JSON, YAML, a private key, values a
command prints), and the values themselves, for the tests that check none is ever sealed."""

from __future__ import annotations

#: the AWS secret ``aws configure get`` prints: a bare line, known only by its shape
AWS_PRINTED = "kq7W2xYpL0vN3mRt9sB4uF6hJ8cZ1dE5gA2oI+/Q"

#: every secret value planted in :data:`SHELL_LOG`, each once
SECRETS: tuple[str, ...] = (
    "wJalrXUtnFEMIK7MDENGbPxRfiCYPLANTEDKEY01",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwbGFudGVkIn0.UGxhbnRlZFNpZ25hdHVyZQ",
    "Hunter2Secret",
    "PlainPw123",
    "hf_PlantedEchoToken0000111122223333",
    "sk-proj-PlantedOpenAi000011112222333344445555",
    "nvapi-PlantedNgcEnv0000111122223333444455556666",
    "PgKvPw999",
    "ghp_PlantedContinued000011112222333344",
    "CurlUserPw777",
    "SshPassPw888",
    "nvapi-PlantedDockerLogin000011112222333344445555",
    "FlagPwValue321",
    "FlagApiKey4455667788",
    "FlagTokenValue99887766",
    "HeaderApiKey123456789",
    "CookieSession55556666777788",
    "JsonPwValue246",
    "JsonTokenValue13579",
    "JsonAwsSecret0AbCdEf0123456789abcdefGHIJ",
    "WWFtbFBhc3N3b3JkQjY0",
    "WWFtbEFwaUtleVZhbHVlODY0Mg==",
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "QyNTUxOQAAACBQbGFudGVkS2V5Qm9keUxpbmVUd29PZkl0AAAAAAECAwQFBgcICQoLDA0O",
    AWS_PRINTED,
)

#: the secrets the log holds, one key's two lines counted as the one key they are
DISTINCT = len(SECRETS) - 1

SHELL_LOG = f"""\
user@gpu-box:~$ export AWS_SECRET_ACCESS_KEY={SECRETS[0]}
user@gpu-box:~$ curl -s -H 'Authorization: Bearer {SECRETS[1]}' https://api.example.invalid/v1
{{"ok": true}}
user@gpu-box:~$ mysql -uroot -p{SECRETS[2]} -e 'select 1'
1
user@gpu-box:~$ git clone https://frank:{SECRETS[3]}@git.example.invalid/team/bench.git
Cloning into 'bench'...
user@gpu-box:~$ echo $HF_TOKEN
{SECRETS[4]}
user@gpu-box:~$ env | grep -i key
OPENAI_API_KEY={SECRETS[5]}
NGC_API_KEY={SECRETS[6]}
user@gpu-box:~$ psql "host=db.example.invalid user=bench password={SECRETS[7]} dbname=runs"
psql (16.2)
user@gpu-box:~$ export GH_TOKEN=\\
> {SECRETS[8]}
user@gpu-box:~$ curl -u admin:{SECRETS[9]} https://registry.example.invalid/v2/
user@gpu-box:~$ sshpass -p '{SECRETS[10]}' ssh gpu-box-2 nvidia-smi -L
GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-6f0c6a3b-8a1e-6b4c-9f07-1d2e3c4b5a69)
user@gpu-box:~$ docker login nvcr.io -u '$oauthtoken' -p {SECRETS[11]}
Login Succeeded
user@gpu-box:~$ mlflow-sync --password {SECRETS[12]} --api-key {SECRETS[13]} --token {SECRETS[14]}
synced 3 runs
user@gpu-box:~$ curl -H 'X-Api-Key: {SECRETS[15]}' -H 'Cookie: session={SECRETS[16]}' https://api.example.invalid/runs
[]
user@gpu-box:~$ cat ~/.config/bench/config.json
{{"user": "bench", "password": "{SECRETS[17]}", "token": "{SECRETS[18]}",
 "aws_secret_access_key": "{SECRETS[19]}"}}
user@gpu-box:~$ kubectl get secret bench-db -o yaml
apiVersion: v1
data:
  password: {SECRETS[20]}
  api-key: {SECRETS[21]}
kind: Secret
user@gpu-box:~$ cat ~/.ssh/id_ed25519
-----BEGIN OPENSSH PRIVATE KEY-----
{SECRETS[22]}
{SECRETS[23]}
-----END OPENSSH PRIVATE KEY-----
user@gpu-box:~$ aws configure get aws_secret_access_key
{SECRETS[24]}
user@gpu-box:~$ nvidia-smi --query-gpu=index,uuid,pci.bus_id,serial --format=csv,noheader
0, GPU-6f0c6a3b-8a1e-6b4c-9f07-1d2e3c4b5a69, 00000000:18:00.0, 1652022010857
"""
