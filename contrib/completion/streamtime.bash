# bash completion for streamtime.  Installed by `meson install` into
# share/bash-completion/completions/; or: source contrib/completion/streamtime.bash
#
# Commands, subcommands and options are read from the program's own --help
# (cached per shell), so the completion never drifts from the program.

_streamtime_help() {   # _streamtime_help WORDS...: cached `streamtime WORDS --help`
	local joined="$*" key
	key="_streamtime_help_cache_${joined// /_}"
	key=${key//-/_}
	if [[ -z ${!key+x} ]]; then
		printf -v "$key" '%s' "$("${_streamtime_bin:-streamtime}" "$@" --help 2>/dev/null)"
	fi
	printf '%s\n' "${!key}"
}

_streamtime() {
	local cur prev words cword
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}
	_streamtime_bin=${words[0]}

	# the command path typed so far: words that are commands of the level
	local path=() i help
	for ((i = 1; i < cword; i++)); do
		[[ ${words[i]} == -* ]] && continue
		help=$(_streamtime_help "${path[@]}")
		if grep -qE "^  ${words[i]} " <<<"$help"; then
			path+=("${words[i]}")
		else
			break
		fi
	done
	help=$(_streamtime_help "${path[@]}")

	case $prev in
	--out|--out-dir|--data|--results|--config|--input|--token-file|--cacert|\
	--clock-offsets|--write-times|--created|--jobs|--db|--merged|--offload|\
	--save-stats|--streaming-dir|--acquisition|--counted)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$help" |
			sort -u)" -- "$cur"))
		return
	fi
	local cmds
	cmds=$(sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p' <<<"$help")
	if [[ -n $cmds ]]; then
		COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
	else
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _streamtime streamtime
